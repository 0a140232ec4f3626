"""rift.integrations: files rift writes into a project for other tools (CI workflows)."""
