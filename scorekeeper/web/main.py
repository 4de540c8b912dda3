"""The home page: games in progress, and where to go next."""

from flask import Blueprint, render_template

from scorekeeper.web.store import store

bp = Blueprint("main", __name__)


@bp.get("/")
def home():
    return render_template("home.html", games=store().games_in_progress())
