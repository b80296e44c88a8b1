"""The game master's console (page and API, authenticated by the gm_token) and each
player's schedule settings. The actions are in `actions`, the surfaces in `api` and `pages`."""
