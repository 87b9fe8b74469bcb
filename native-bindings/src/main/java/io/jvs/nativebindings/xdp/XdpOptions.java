package io.jvs.nativebindings.xdp;

import java.lang.foreign.StructLayout;

import io.jvs.nativebindings.Layouts;

import static java.lang.foreign.MemoryLayout.structLayout;
import static java.lang.foreign.ValueLayout.JAVA_INT;

/**
 * {@code struct xdp_options}, the XDP_OPTIONS option: how a bound socket ended up, since bind flags 0 let the
 * kernel choose copy or zero-copy mode silently.
 */
public final class XdpOptions
{
    public static final StructLayout LAYOUT = structLayout(JAVA_INT.withName("flags")).withName("xdp_options");

    public static final int SIZE = Layouts.size(LAYOUT);
    public static final int FLAGS_OFFSET = Layouts.offset(LAYOUT, "flags");

    private XdpOptions()
    {
    }
}
