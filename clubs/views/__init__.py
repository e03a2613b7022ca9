"""The club's screens, one module a family: setup.py (create, the organizer's link, the code at
/join/), club.py (the club page and the organizer's changes), nights.py (a night from the club),
standings.py (the season's standings, printed and as CSV), files.py (the club's file)."""
