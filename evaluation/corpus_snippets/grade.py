def grade(score):
    for limit, letter in ((90, "A"), (80, "B"), (70, "C")):
        if score >= limit:
            return letter
    return "F"


def grade_report(scores):
    letters = [grade(s) for s in scores]
    return "".join(letters), letters.count("A")
