"""Alembic migrations, packaged with the service so `dicepost db upgrade` runs anywhere."""
