package io.jvs.nativebindings;

import java.lang.foreign.StructLayout;

import static java.lang.foreign.MemoryLayout.structLayout;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

/**
 * {@code struct pollfd}, an array of which poll(2) takes, and its event bits.
 */
public final class PollFd
{
    public static final StructLayout LAYOUT = structLayout(
        JAVA_INT.withName("fd"),
        JAVA_SHORT.withName("events"),
        JAVA_SHORT.withName("revents")).withName("pollfd");

    public static final int SIZE = Layouts.size(LAYOUT);
    public static final int FD_OFFSET = Layouts.offset(LAYOUT, "fd");
    public static final int EVENTS_OFFSET = Layouts.offset(LAYOUT, "events");
    public static final int REVENTS_OFFSET = Layouts.offset(LAYOUT, "revents");

    public static final short POLLIN = 0x0001;
    public static final short POLLPRI = 0x0002;
    public static final short POLLOUT = 0x0004;
    /** The following three are reported in revents whether asked for or not. */
    public static final short POLLERR = 0x0008;
    public static final short POLLHUP = 0x0010;
    public static final short POLLNVAL = 0x0020;

    private PollFd()
    {
    }
}
