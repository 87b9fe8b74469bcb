package io.jvs.forwarder.port.memory;

/**
 * Where a {@link MemoryPort} gets the frames it "receives": the source writes each frame straight into the
 * port's buffer, as a NIC would. A benchmark varies flows by patching addresses and ports in the frame it
 * writes, keeping its own state in fields: nothing needs to be allocated per frame.
 */
@FunctionalInterface
public interface FrameSource
{
    /**
     * Writes the next frame.
     *
     * @param address  where the frame starts, off-heap.
     * @param capacity bytes available from there.
     * @return the frame's length, 1..capacity; 0 when the source has no frame to give now (a finite source
     * at its end), and the port's receive stops there.
     */
    int next(long address, int capacity);
}
