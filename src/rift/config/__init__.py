"""Configuration: layered settings, the rule grammar they hold, project trust (README.md)."""
