"""The front's configuration (deploy/nginx) against the app it stands before: the body limits
are the app's settings, the streams are the app's stream routes, each error page is there in
every language; and the production site, run by nginx with a throwaway certificate,
terminates TLS, sends HSTS and sends http to https.

The stack through the front, on PostgreSQL, is tests/robustness/test_front_stack.py.
"""

from __future__ import annotations

import html
import http.client
import re
import shutil
import socket
import ssl
import subprocess
import time
from types import SimpleNamespace

import pytest

from scorekeeper import config
from scorekeeper.app import create_app
from scorekeeper.web.streams import HEARTBEAT_SECONDS
from scorekeeper.web.transfer import largest_body
from scripts import front_errors
from scripts.hosted_stack import FRONT, NGINX, nginx_main_config
from testing.live import free_port
from tests.support.front import (
    directives,
    error_pages,
    http_conf,
    location,
    nginx_or_skip,
    nginx_size,
    server_conf,
)

# The views that answer with a stream of events: an open sheet's, a spectator's.
STREAMS = {"live.events", "spectating.spectate_events"}
ERRORS = ("408", "413", "429", "502", "503")


@pytest.fixture(scope="module")
def app(tmp_path_factory):
    instance = tmp_path_factory.mktemp("instance")
    return create_app(
        {"DATABASE_URL": f"sqlite:///{instance / 'front.db'}", "TESTING": True},
        instance_path=instance,
    )


def _sample_paths(app) -> dict[str, list[str]]:
    """A path for each of the app's routes, by endpoint (its arguments filled in)."""
    paths: dict[str, list[str]] = {}
    for rule in app.url_map.iter_rules():
        path = re.sub(r"<int:[^>]+>", "12", rule.rule)
        path = re.sub(r"<[^>]+>", "aB3-_x", path)
        paths.setdefault(rule.endpoint, []).append(path)
    return paths


def test_the_body_limit_is_the_apps_and_the_imports_the_largest_body(app, tmp_path):
    defaults = config.defaults(tmp_path)
    (general,) = directives(server_conf(), "client_max_body_size")
    assert nginx_size(general) == defaults["MAX_CONTENT_LENGTH"] == app.config["MAX_CONTENT_LENGTH"]
    # The one route whose limit is larger: the import's.
    (upload,) = _sample_paths(app)["transfer.upload"]
    (imports,) = directives(location(server_conf(), f"= {upload}"), "client_max_body_size")
    assert (
        nginx_size(imports) == largest_body(SimpleNamespace(config=defaults)) == largest_body(app)
    )
    assert nginx_size(imports) > nginx_size(general)


def test_the_streams_and_only_they_pass_unbuffered(app):
    (pattern,) = re.findall(r"^location ~ (\S+) \{", server_conf(), re.MULTILINE)
    streams = re.compile(pattern)
    for endpoint, paths in _sample_paths(app).items():
        for path in paths:
            assert bool(streams.search(path)) is (endpoint in STREAMS), (endpoint, path)
    block = location(server_conf(), f"~ {pattern}")
    assert directives(block, "proxy_buffering") == ["off"]
    (read_timeout,) = directives(block, "proxy_read_timeout")
    # Several heartbeats may be missed before nginx gives the stream up.
    assert int(read_timeout.rstrip("s")) >= 4 * HEARTBEAT_SECONDS


def test_the_front_reads_whole_requests_with_timeouts_and_limits_per_address():
    conf = server_conf()
    assert directives(conf, "proxy_request_buffering") == ["on"]
    assert directives(conf, "client_header_timeout") == ["10s"]
    assert directives(conf, "client_body_timeout") == ["10s"]
    assert directives(conf, "limit_conn") == ["scorekeeper_connections 32"]
    assert directives(conf, "limit_req") == ["zone=scorekeeper_requests burst=40 nodelay"]
    headers = dict(value.split(None, 1) for value in directives(conf, "proxy_set_header"))
    # The first proxy: the address nginx saw, not one the client wrote.
    assert headers["X-Forwarded-For"] == "$remote_addr"
    assert headers["X-Forwarded-Proto"] == "$scheme"
    assert headers["Host"] == "$host"


def test_each_error_page_is_in_every_language_and_served_for_its_status(app):
    pages = error_pages()
    languages = app.config["LANGUAGES"]
    assert set(pages) == {(language, status) for language in languages for status in ERRORS}
    # The files are what scripts/front_errors.py writes from the template and the catalogues.
    assert {path: path.read_text(encoding="utf-8") for path in pages.values()} == (
        front_errors.error_pages()
    )
    for (language, _status), page in pages.items():
        assert f'<html lang="{language}">' in page.read_text(encoding="utf-8")
    served = {
        status: target
        for value in directives(server_conf(), "error_page")
        for *statuses, target in [value.split()]
        for status in statuses
    }
    for status in ERRORS:
        assert served[status] == f"/_errors/{'502' if status == '504' else status}.html"
    # The 503 (the front full for a moment) says that nothing was lost.
    assert "Rien n'a été perdu" in html.unescape(pages["fr", "503"].read_text(encoding="utf-8"))
    assert "Nothing was lost" in pages["en", "503"].read_text(encoding="utf-8")
    assert "Nichts ging verloren" in pages["de", "503"].read_text(encoding="utf-8")


def _front_language(accept_language: str) -> str:
    """The language nginx's map (http.conf) gives these Accept-Language, its regular
    expressions run by Python's re, which reads them the same way."""
    block = re.search(
        r"map \$http_accept_language \$scorekeeper_language \{(.*?)\}", http_conf(), re.S
    )
    chosen = re.search(r"default (\w+);", block.group(1)).group(1)
    for pattern, language in re.findall(r'"~\*(.*)" (\w+);', block.group(1)):
        if re.search(pattern, accept_language, re.IGNORECASE):
            return language
    return chosen


@pytest.mark.parametrize(
    "accept",
    [
        "",
        "fr-FR,fr;q=0.9,en;q=0.5",
        "en-GB,en;q=0.9",
        "de-DE,de;q=0.9,en;q=0.8",
        "es-AR,es;q=0.9",
        "sv-SE",
        "it-IT,it;q=0.9,es;q=0.8,fr;q=0.5",
        "nl,en-US;q=0.8",
        "pt-BR",
        "*",
    ],
)
def test_the_front_speaks_the_language_the_app_would(app, accept):
    """The first of the app's languages that the browser lists, as web/language.py chooses."""
    client = app.test_client()
    page = client.get("/", headers={"Accept-Language": accept}).get_data(as_text=True)
    assert _front_language(accept) == re.search(r'<html lang="(\w+)"', page).group(1)


def _production_site(tmp_path, http_port: int, https_port: int, upstream_port: int) -> str:
    """deploy/nginx/scorekeeper.conf with its folder, certificate and ports here."""
    shutil.copytree(FRONT, tmp_path / "scorekeeper")
    tls = tmp_path / "tls"
    tls.mkdir()
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1"]
        + ["-subj", "/CN=yams.example", "-keyout", str(tls / "privkey.pem")]
        + ["-out", str(tls / "fullchain.pem")],
        check=True,
        capture_output=True,
    )
    site = (FRONT / "scorekeeper.conf").read_text(encoding="utf-8")
    for old, new in {
        "/etc/nginx/scorekeeper": str(tmp_path / "scorekeeper"),
        "/etc/letsencrypt/live/yams.example": str(tls),
        "listen 80;": f"listen 127.0.0.1:{http_port};",
        "listen [::]:80;": "",
        "listen 443 ssl http2;": f"listen 127.0.0.1:{https_port} ssl http2;",
        "listen [::]:443 ssl http2;": "",
        # Nothing listens there: the app away, nginx's own 502 page.
        "server 127.0.0.1:8000;": f"server 127.0.0.1:{upstream_port};",
    }.items():
        assert old in site, old
        site = site.replace(old, new)
    return site


def _until_listening(port: int, process: subprocess.Popen) -> None:
    deadline = time.monotonic() + 20
    while True:
        assert process.poll() is None, process.communicate(timeout=10)[1]
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return
        except OSError:
            assert time.monotonic() < deadline, "nginx did not listen"
            time.sleep(0.05)


def test_the_production_site_terminates_tls_sends_hsts_and_redirects_http(tmp_path):
    nginx_or_skip()
    http_port, https_port, upstream_port = free_port(), free_port(), free_port()
    site = tmp_path / "site.conf"
    site.write_text(_production_site(tmp_path, http_port, https_port, upstream_port))
    main = tmp_path / "nginx.conf"
    main.write_text(nginx_main_config(tmp_path, f"    include {site};"))
    command = [NGINX, "-p", str(tmp_path), "-c", str(main), "-e", "stderr"]
    checked = subprocess.run([*command, "-t"], capture_output=True, text=True)
    assert checked.returncode == 0, checked.stderr
    process = subprocess.Popen(command, stderr=subprocess.PIPE, text=True)
    try:
        _until_listening(https_port, process)
        plain = http.client.HTTPConnection("127.0.0.1", http_port, timeout=10)
        plain.request("GET", "/games/12?paper=a4", headers={"Host": "yams.example"})
        answer = plain.getresponse()
        assert answer.status == 301
        assert answer.getheader("Location") == "https://yams.example/games/12?paper=a4"
        assert answer.getheader("Strict-Transport-Security") is None

        context = ssl.create_default_context()
        context.check_hostname, context.verify_mode = False, ssl.CERT_NONE
        secure = http.client.HTTPSConnection("127.0.0.1", https_port, timeout=10, context=context)
        secure.request("GET", "/", headers={"Host": "yams.example", "Accept-Language": "en"})
        answer = secure.getresponse()
        page = answer.read().decode()
        assert answer.status == 502
        assert answer.getheader("Strict-Transport-Security") == "max-age=63072000"
        assert "The server did not answer" in page
    finally:
        process.terminate()
        process.wait(timeout=20)
