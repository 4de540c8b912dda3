"""The app for a WSGI server of several processes: ``gunicorn 'scorekeeper.wsgi:app'``.

Configured by the instance folder's config.py or the environment (SCOREKEEPER_DATABASE_URL,
SCOREKEEPER_SECRET_KEY); see docs/hosting.md.
"""

import sys

from scorekeeper.app import create_app
from scorekeeper.config import SettingError
from scorekeeper.store.engine import DatabaseSetupError

try:
    app = create_app()
except (DatabaseSetupError, SettingError) as error:
    # One line an operator can act on, not a traceback in every worker's log.
    sys.exit(f"scorekeeper: {error}")
