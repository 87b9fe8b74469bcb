package io.jvs.forwarder.port.memory;

import io.jvs.core.packet.Frames;

import java.util.ArrayList;
import java.util.List;

/**
 * Keeps a copy of every frame transmitted, in order, for tests. It allocates a byte array per frame: not for
 * benchmarks.
 */
public final class FrameRecorder implements TransmitObserver
{
    private final List<byte[]> frames = new ArrayList<>();

    @Override
    public void transmitted(final long address, final int length)
    {
        frames.add(Frames.read(address, length));
    }

    /**
     * @return the frames seen so far (a view, not a copy).
     */
    public List<byte[]> frames()
    {
        return frames;
    }

    public void clear()
    {
        frames.clear();
    }
}
