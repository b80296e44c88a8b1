"""One package per rule system; each is listed explicitly in engine.registry."""
