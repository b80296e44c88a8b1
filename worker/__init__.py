"""The Celery tasks (worker.tasks): the entry point the workers run.

The Celery app itself is made by the service's app factory (service.tasks, Flask's
Celery pattern), which names this package's tasks for Celery to import; the service
sends them by name and never imports them.
"""
