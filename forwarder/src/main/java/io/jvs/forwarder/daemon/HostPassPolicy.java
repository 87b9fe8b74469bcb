package io.jvs.forwarder.daemon;

/**
 * Whether the host has not seen a frame the pipeline passes to it, and so must be given it through the TAP.
 */
@FunctionalInterface
interface HostPassPolicy
{
    /** Every frame jvs took from the port, which the host never saw (an AF_XDP port: the program redirected it). */
    HostPassPolicy ALWAYS = (address, length) -> true;
    /** No frame: the host processed the original already (an AF_PACKET port that steals nothing). */
    HostPassPolicy NEVER = (address, length) -> false;

    boolean hostMissed(long address, int length);
}
