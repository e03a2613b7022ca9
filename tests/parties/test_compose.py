"""docker-compose.yml brings up the production stack the settings expect."""

from pathlib import Path

import yaml

COMPOSE = yaml.safe_load((Path(__file__).resolve().parents[2] / "docker-compose.yml").read_text())


def test_it_runs_daphne_on_postgresql_and_redis_in_production_mode():
    services = COMPOSE["services"]
    assert set(services) == {"web", "db", "redis"}
    assert services["db"]["image"] == "postgres:16"
    assert any(volume.endswith(":/var/lib/postgresql/data") for volume in services["db"]["volumes"])
    assert services["redis"]["image"] == "redis:7"
    web = services["web"]
    assert "manage.py migrate" in web["command"]
    # daphne through the launcher, which installs the server patches (docs/server-tuning.md)
    assert "python -m bunco_site.serve " in web["command"]
    env = web["environment"]
    assert env["DJANGO_DEBUG"] == "0"
    assert env["DATABASE_URL"].startswith("postgres://") and "@db:5432/" in env["DATABASE_URL"]
    assert env["REDIS_URL"] == "redis://redis:6379/0"
    assert env["DJANGO_SECRET_KEY"].startswith("${DJANGO_SECRET_KEY:?")  # no default secret
    assert set(web["depends_on"]) == {"db", "redis"}


def test_the_image_copies_every_package_the_app_imports():
    dockerfile = COMPOSE["services"]["web"]["build"]["dockerfile_inline"]
    for folder in ("bunco_site", "parties", "scoring", "templates", "static"):
        assert f"COPY {folder} {folder}" in dockerfile
