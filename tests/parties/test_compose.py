"""docker-compose.yml brings up the production stack the settings expect: HAProxy with
deploy/haproxy.cfg (the config tests/faults/test_proxy.py runs) in front of daphne processes.
Docker does not run here: the file is read, and the proxy's config is checked by haproxy
itself with the environment compose gives it."""

import os
import re
import subprocess
from pathlib import Path

import pytest
import yaml

from bench.haproxy import haproxy_path

ROOT = Path(__file__).resolve().parents[2]
COMPOSE = yaml.safe_load((ROOT / "docker-compose.yml").read_text())
SERVICES = COMPOSE["services"]
HAPROXY_CFG = (ROOT / "deploy" / "haproxy.cfg").read_text()
DAPHNES = ("web1", "web2")


def test_it_runs_a_proxy_and_two_daphne_processes_on_postgresql_and_redis():
    assert set(SERVICES) == {"proxy", "migrate", *DAPHNES, "db", "redis"}
    assert SERVICES["db"]["image"] == "postgres:16"
    assert any(volume.endswith(":/var/lib/postgresql/data") for volume in SERVICES["db"]["volumes"])
    assert SERVICES["redis"]["image"] == "redis:7"
    assert SERVICES["migrate"]["command"] == ["python", "manage.py", "migrate", "--noinput"]
    assert set(SERVICES["migrate"]["depends_on"]) == {"db", "redis"}


@pytest.mark.parametrize("name", DAPHNES)
def test_each_daphne_process_runs_in_production_mode_behind_the_proxy_only(name):
    web = SERVICES[name]
    command = web["command"].split()
    # the launcher: the server patches and the graceful stop (docs/server-tuning.md, deploy.md)
    assert command[:3] == ["python", "-m", "bunco_site.serve"]
    assert "--proxy-headers" in command and command[-1] == "bunco_site.asgi:application"
    assert "ports" not in web, "a daphne process reachable from outside trusts forged headers"
    assert web["expose"] == ["8000"] and command[command.index("-p") + 1] == "8000"
    env = web["environment"]
    assert env["DJANGO_DEBUG"] == "0"
    assert env["DATABASE_URL"].startswith("postgres://") and "@db:5432/" in env["DATABASE_URL"]
    assert env["REDIS_URL"] == "redis://redis:6379/0"
    assert env["DJANGO_SECRET_KEY"].startswith("${DJANGO_SECRET_KEY:?")  # no default secret
    assert env["BUNCO_DEPLOYMENT_PREFIX"].startswith("${BUNCO_DEPLOYMENT_PREFIX:-")
    assert web["depends_on"] == {"migrate": {"condition": "service_completed_successfully"}}
    # Docker's stop waits longer than the graceful stop may take, so it never kills mid-drain.
    assert int(web["stop_grace_period"].rstrip("s")) > float(env["BUNCO_DRAIN_TIMEOUT"])


def test_the_proxy_runs_the_tested_config_with_a_server_line_for_each_process():
    proxy = SERVICES["proxy"]
    assert proxy["image"].startswith("haproxy:2.")
    assert "./deploy/haproxy.cfg:/usr/local/etc/haproxy/haproxy.cfg:ro" in proxy["volumes"]
    servers = re.findall(r'^\s*server (\S+) "\$\{(BUNCO_WEB\d+)\}"', HAPROXY_CFG, re.M)
    assert servers == [(name, f"BUNCO_{name.upper()}") for name in DAPHNES]
    for name in DAPHNES:
        assert proxy["environment"][f"BUNCO_{name.upper()}"] == f"{name}:8000"
    env = proxy["environment"]
    assert env["BUNCO_PUBLIC_HOST"] == SERVICES["web1"]["environment"]["DJANGO_ALLOWED_HOSTS"]
    assert proxy["ports"] == [f"80:{env['BUNCO_HTTP_BIND'].lstrip(':')}",
                              f"443:{env['BUNCO_HTTPS_BIND'].lstrip(':')}"]


def test_the_image_copies_every_package_the_app_imports():
    dockerfile = SERVICES["web1"]["build"]["dockerfile_inline"]
    for folder in ("bunco_site", "parties", "scoring", "templates", "static"):
        assert f"COPY {folder} {folder}" in dockerfile


def compose_env(tls_cert=""):
    """The proxy's environment as compose gives it (its defaults, TLS as chosen)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("BUNCO_")}
    for key, value in SERVICES["proxy"]["environment"].items():
        env[key] = re.sub(r"\$\{[A-Z_]+:-([^}]*)\}", r"\1", str(value))
    env["BUNCO_TLS_CERT"] = tls_cert
    return env


@pytest.mark.needs_haproxy
@pytest.mark.parametrize("tls", [False, True], ids=["http", "https"])
def test_haproxy_accepts_the_config_with_the_environment_compose_gives_it(tls, tmp_path):
    haproxy = haproxy_path()
    cert = ""
    if tls:
        key, crt = tmp_path / "key.pem", tmp_path / "crt.pem"
        subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1",
                        "-subj", "/CN=localhost", "-keyout", str(key), "-out", str(crt)],
                       check=True, capture_output=True, timeout=60)
        cert = tmp_path / "site.pem"
        cert.write_text(crt.read_text() + key.read_text())
    result = subprocess.run([haproxy, "-c", "-f", str(ROOT / "deploy" / "haproxy.cfg")],
                            env=compose_env(str(cert)), capture_output=True, text=True,
                            timeout=30)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "Configuration file is valid" in result.stdout
