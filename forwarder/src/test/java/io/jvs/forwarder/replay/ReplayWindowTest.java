package io.jvs.forwarder.replay;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class ReplayWindowTest
{
    @Test
    void shouldStartEveryFrameOfAWindowOnACacheLine()
    {
        // A frame that starts mid-line takes one line more than it needs, and the pipeline's core has to fetch it from
        // the reading core's cache: a plain direct buffer put every small frame 16 bytes into a line.
        final Replay.Window window = new Replay.Window(2);
        for (int entry = 0; entry < Replay.BURST; entry++)
        {
            assertThat(window.smallSlot(entry) % Replay.FRAME_ALIGNMENT).as("small slot %d", entry).isZero();
            assertThat(window.largeSlot(entry) % Replay.FRAME_ALIGNMENT).as("large slot %d", entry).isZero();
        }
        assertThat(window.smallSlot(1) - window.smallSlot(0)).as("a small slot's room").isGreaterThanOrEqualTo(2048);
    }
}
