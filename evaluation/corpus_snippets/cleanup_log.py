def cleanup_log(xs):
    log = []
    try:
        for x in xs:
            log.append(60 // x)
    except ZeroDivisionError:
        log.append("zero")
    finally:
        log.append("done")
    return log
