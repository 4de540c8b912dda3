"""The home page: games in progress, where to go next, and how another tablet joins."""

from urllib.parse import urlsplit

from flask import Blueprint, render_template, request

from scorekeeper.net import lan_address
from scorekeeper.store.games import count_games_in_progress, games_in_progress
from scorekeeper.web.addresses import qr_code_svg
from scorekeeper.web.paging import page_from_request
from scorekeeper.web.store import household, store

bp = Blueprint("main", __name__)

LOOPBACK = "127.0.0.1"
# The home page lists this many games in progress, the most recent first, and links to the
# rest: however many games a household leaves open, the page stays small and quick.
HOME_GAMES = 8
IN_PROGRESS_PAGE_SIZE = 50


def join_url() -> str:
    """The address a tablet on the home network opens: this machine's LAN address, on the
    port this page was asked on (the one the server listens on, whatever it was given)."""
    port = urlsplit(request.host_url).port or (443 if request.scheme == "https" else 80)
    return f"http://{lan_address()}:{port}"


@bp.get("/")
def home():
    url = join_url()
    return render_template(
        "home.html",
        games=games_in_progress(store(), household=household(), limit=HOME_GAMES),
        games_count=count_games_in_progress(store(), household=household()),
        join_url=url,
        join_qr=qr_code_svg(url, keep=True),
        offline=url.startswith(f"http://{LOOPBACK}:"),
    )


@bp.get("/games/in-progress")
def in_progress():
    """Every game in progress, a page at a time: the rest of the home page's list."""
    page = page_from_request(
        count_games_in_progress(store(), household=household()), IN_PROGRESS_PAGE_SIZE
    )
    games = games_in_progress(
        store(), household=household(), offset=page.offset, limit=page.size, count=page.count
    )
    return render_template("in_progress.html", games=games, page=page)
