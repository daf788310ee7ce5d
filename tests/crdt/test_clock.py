from repoctx.crdt import Clock, tick_ms


def test_ticks_strictly_increase_when_the_wall_clock_jumps_back():
    walls = iter([1000, 1000, 900, 900, 2000])
    clock = Clock(wall=lambda: next(walls))
    ticks = [clock.now() for _ in range(5)]
    assert ticks == sorted(set(ticks))
    assert tick_ms(ticks[0]) == 1000 and tick_ms(ticks[-1]) == 2000


def test_a_restarted_clock_resumes_from_its_persisted_tick():
    first = Clock(wall=lambda: 5)
    last = [first.now() for _ in range(3)][-1]
    restarted = Clock(last=last, wall=lambda: 1)  # wall clock went back across the restart
    assert restarted.now() > last


def test_observe_moves_past_remote_ticks():
    clock = Clock(wall=lambda: 1)
    clock.observe(10 << 16)
    assert clock.now() > 10 << 16
