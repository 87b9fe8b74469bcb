package io.jvs.forwarder.port.memory;

/**
 * Sees each frame a {@link MemoryPort} transmits, when it is queued: a test checks them, a benchmark may
 * checksum them. Called on the port's thread; the frame's bytes are valid only during the call.
 */
@FunctionalInterface
public interface TransmitObserver
{
    /** Sees nothing. */
    TransmitObserver NONE = (address, length) ->
    {
    };

    /**
     * @param address the frame's first byte, off-heap.
     * @param length  its length.
     */
    void transmitted(long address, int length);
}
