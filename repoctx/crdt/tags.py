"""crdt/tags — the type tag of every CRDT encoding (byte 0 of its binary form).

Byte 1 is the type's format version. Tags are never reused: a retired type keeps
its number. Pure constants.
"""

LWW_REGISTER = 1
OR_FLAG = 2
ADD_WINS_SET = 3
OR_MAP = 4
TTL_SET = 5
MAX_REGISTER = 6
TEXT_BODY = 7

FORMAT_VERSION = 1
