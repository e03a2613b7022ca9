#!/usr/bin/env python
"""Django's command-line entry point."""

import os
import sys

if __name__ == "__main__":
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "bunco_site.settings")
    if sys.argv[1:2] == ["party_server"]:
        # The party server's settings (bunco_site/settings.py): production's, data in one folder.
        os.environ.setdefault("BUNCO_PARTY_SERVER", "1")
    from django.core.management import execute_from_command_line

    execute_from_command_line(sys.argv)
