"""The live-path benchmark (docs/performance.md): the app and a raw `websockets` baseline, driven by
one open-loop load generator. Entry point: `python -m bench.live --scenario S1`."""
