"""The pages a crawl reads: every GET page of the URL map on the `seeded` games and players
(tests/web/conftest.py), and the pages that only a query shows."""

# The PDFs are checked on their own (tests/web/test_language.py); JSON and the manifest hold
# no sentence.
NOT_CRAWLED = {"static", "prints.game_sheet", "prints.blank"}


def crawl_urls(app, seeded) -> list[str]:
    urls = []
    for rule in app.url_map.iter_rules():
        if "GET" not in rule.methods or rule.endpoint in NOT_CRAWLED:
            continue
        if "<int:game_id>" in rule.rule:
            urls += [
                rule.rule.replace("<int:game_id>", str(seeded[name]))
                for name in ("playing", "finished", "triple")
            ]
        elif "<int:player_id>" in rule.rule:
            urls += [
                rule.rule.replace("<int:player_id>", str(player)) for player in seeded["players"]
            ]
        else:
            urls.append(rule.rule)
    playing, seq = seeded["playing"], seeded["seq"]
    return urls + [
        f"/games/{playing}?dice=66653",
        f"/games/{playing}?dice=12346",
        f"/games/{playing}/turn?seq={seq}&dice=66653&target=free:three_kind",
        f"/games/{playing}/turn?seq={seq}&dice=12345&target=free:yams",
        f"/games/{playing}/advice?dice=66653",
        f"/games/{seeded['finished']}/advice?dice=66653",
        f"/games/{seeded['finished']}/review?step=4",
        f"/games/{seeded['triple']}/review?step=1",
        f"/games/{seeded['finished']}/review?step=99",
        "/hall-of-fame?page=9",
        "/nowhere",
    ]
