class Größe:
    """Größe — a size."""

    def 计算(self, π: float) -> float:
        return π * 2


π = 3.14159
naïve_default = "😀"


def ñandú(ß=π):
    """Emoji 😀 in a docstring."""
    return ß
