"""Plugin registries."""


class Registry:
    def __init__(self, name):
        self.name = name
        self.plugins = []

    def register(self, plugin):
        self.plugins.append(plugin)
        return plugin

    def names(self):
        return [p.__name__ for p in self.plugins]
