class ConfigError(Exception):
    pass


def read_setting(settings, name):
    try:
        raw = settings[name]
    except KeyError as exc:
        raise ConfigError("no " + name) from exc
    return int(raw)


def load_settings(settings, names):
    values = {}
    for name in names:
        try:
            values[name] = read_setting(settings, name)
        except ConfigError:
            values[name] = 0
        except ValueError:
            values[name] = -1
    return values
