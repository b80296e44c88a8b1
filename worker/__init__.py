"""Celery, the doorbell: Flask's own Celery pattern (`celery_init_app`, `shared_task`).

The database is the source of truth. Tasks take ids and call service functions that
are idempotent; a lost task is re-sent by the sweeper (service.sweeper).
"""

from __future__ import annotations

from typing import Any

from celery import Celery, Task
from flask import Flask


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
