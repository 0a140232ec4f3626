"""Files and the processes run on them: paths, safe access, undo journal, git (README.md)."""
