"""Daphne without Twisted's form parsing (bunco_site.fast.server_tuning.request_bodies), in a daphne
server of its own process: a Twisted reactor is installed once per process."""

import json
import subprocess
import sys
import textwrap

CHILD = textwrap.dedent(
    """
    import asyncio, json, sys, threading, urllib.request
    from twisted.internet import asyncioreactor
    asyncioreactor.install(asyncio.new_event_loop())
    from twisted.internet import reactor
    from twisted.web import http
    from daphne.server import Server
    from bunco_site.fast.server_tuning import request_bodies

    parsed = []
    real_parse = http._parseContentType
    http._parseContentType = lambda line: (parsed.append(line), real_parse(line))[1]
    if sys.argv[1] == "installed":
        import daphne.http_protocol
        request_bodies.apply()  # raises Skip if Twisted or daphne is not what it was measured on
        request_bodies.apply()  # twice is once
        assert [c for c in daphne.http_protocol.WebRequest.__mro__ if "parses_forms" in vars(c)] == [
            daphne.http_protocol.WebRequest
        ]

    async def echo(scope, receive, send):
        body = b""
        while True:
            message = await receive()
            body += message.get("body", b"")
            if not message.get("more_body"):
                break
        answer = json.dumps({"body": body.decode(), "type": dict(scope["headers"])[b"content-type"].decode()})
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": answer.encode()})

    server = Server(echo, endpoints=["tcp:port=0:interface=127.0.0.1"], signal_handlers=False)
    answers = []

    def post_forms():
        port = server.listening_addresses[0][1]
        for body, ctype in [
            (b"tap_id=a1&seen=3&outcome=miss", "application/x-www-form-urlencoded;charset=UTF-8"),
            (b"--x\\r\\nContent-Disposition: form-data; name=a\\r\\n\\r\\n1\\r\\n--x--\\r\\n", "multipart/form-data; boundary=x"),
        ]:
            request = urllib.request.Request(
                f"http://127.0.0.1:{port}/parties/1/table/1/rolls/", data=body, headers={"Content-Type": ctype}
            )
            with urllib.request.urlopen(request, timeout=10) as response:
                answers.append(json.loads(response.read()))
        reactor.callFromThread(reactor.stop)

    def when_listening():
        if not server.listening_addresses:
            return reactor.callLater(0.05, when_listening)
        threading.Thread(target=post_forms, daemon=True).start()

    reactor.callLater(0.05, when_listening)
    reactor.callLater(20, reactor.stop)
    server.run()
    print(json.dumps({"answers": answers, "parsed": len(parsed)}))
    """
)


def run(mode):
    done = subprocess.run(
        [sys.executable, "-c", CHILD, mode], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_daphne_hands_form_bodies_to_the_app_unparsed_and_unchanged():
    plain, installed = run("plain"), run("installed")
    assert plain["parsed"] == 2  # Twisted reads each form's Content-Type: the work skipped
    assert installed["parsed"] == 0
    assert installed["answers"] == plain["answers"]
    form, multipart = installed["answers"]
    assert form == {
        "body": "tap_id=a1&seen=3&outcome=miss",
        "type": "application/x-www-form-urlencoded;charset=UTF-8",
    }
    assert multipart["body"].startswith("--x\r\nContent-Disposition: form-data; name=a")
