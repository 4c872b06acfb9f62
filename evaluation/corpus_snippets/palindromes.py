def is_palindrome(text):
    cleaned = [ch.lower() for ch in text if ch.isalnum()]
    left, right = 0, len(cleaned) - 1
    while left < right:
        if cleaned[left] != cleaned[right]:
            return False
        left += 1
        right -= 1
    return True


def palindromes(phrases):
    return [p for p in phrases if is_palindrome(p)]
