"""`scorekeeper backup`: the command over scorekeeper.store.backup, which makes the copy.

scorekeeper.cli registers it and gives it its `--instance` option.
"""

from __future__ import annotations

from pathlib import Path

import click

from scorekeeper.app import STORE_EXTENSION, create_app
from scorekeeper.cli.transfer import household_id
from scorekeeper.store.backup import BackupError, backup, sqlite_file


@click.command("backup")
@click.argument("file", type=click.Path(dir_okay=False, path_type=Path))
@click.option(
    "--household",
    "household_name",
    default=None,
    help="Hosted: back up this household only (its name).",
)
def backup_command(file: Path, instance: Path | None, household_name: str | None) -> None:
    """Copy the games database into FILE (replaced if it exists), even while the server runs.

    To restore, see "Safety and backups" in the README.
    """
    if instance is not None and not instance.is_dir():
        raise click.BadParameter(f"no instance folder at {instance}", param_hint="--instance")
    # The instance's settings come through the app, as for `serve`.
    app = create_app(instance_path=instance)
    household = (
        household_id(app.extensions[STORE_EXTENSION], household_name)
        if household_name is not None
        else None
    )
    app.extensions[STORE_EXTENSION].dispose()
    try:
        database = sqlite_file(app.config["DATABASE_URL"])
        summary = backup(database, file, household)
    except BackupError as error:
        raise click.ClickException(str(error)) from error
    click.echo(f"Backed up {database} to {file}: {summary.games} games, {summary.entries} entries.")
