package io.jvs.forwarder.daemon;

/**
 * Which worker owns a frame's client ({@link io.jvs.core.pipeline.ClientDispatch} over the current VIPs), for an
 * AF_XDP worker deciding whether to hand a frame over. The conductor replaces it when the VIPs change.
 */
@FunctionalInterface
interface FrameOwner
{
    /** @return the owning worker of the frame at {@code address}, 0..workers-1. */
    int workerOf(long address, int length);
}
