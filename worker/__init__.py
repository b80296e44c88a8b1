"""Celery, the doorbell: Flask's own Celery pattern (`celery_init_app`, `shared_task`).

The database is the source of truth. Tasks take ids and call service functions that
are idempotent; a lost task is re-sent by the sweeper (service.sweeper).
"""

from __future__ import annotations

from typing import Any

from celery import Celery, Task
from celery.signals import setup_logging
from flask import Flask

from service.logs import setup_worker_logging

# The worker and beat log through the service's handler (level and format from the
# environment, task ids on every line) instead of Celery's own setup.
setup_logging.connect(setup_worker_logging, weak=False, dispatch_uid="dicepost.logs")


def celery_init_app(app: Flask) -> Celery:
    class FlaskTask(Task):
        def __call__(self, *args: Any, **kwargs: Any) -> Any:
            with app.app_context():
                return self.run(*args, **kwargs)

    celery_app = Celery(app.name, task_cls=FlaskTask)
    celery_app.config_from_object(app.config["CELERY"])
    celery_app.set_default()
    app.extensions["celery"] = celery_app
    import worker.tasks  # noqa: F401  (registers the shared tasks)

    return celery_app
