CLOSED_STREAMS = []


def tokens(text):
    try:
        for part in text.split(","):
            yield part.strip()
    finally:
        CLOSED_STREAMS.append(text)


def first_tokens(text, k):
    gen = tokens(text)
    out = []
    for _ in range(k):
        out.append(next(gen))
    gen.close()
    return out, len(CLOSED_STREAMS)
