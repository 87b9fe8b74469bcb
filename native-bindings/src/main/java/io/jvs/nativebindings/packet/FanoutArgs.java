package io.jvs.nativebindings.packet;

import java.lang.foreign.StructLayout;

import io.jvs.nativebindings.Layouts;

import static java.lang.foreign.MemoryLayout.structLayout;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

/**
 * {@code struct fanout_args}, the 8-byte form of the PACKET_FANOUT argument (Linux 5.13+): its first four
 * bytes are the 4-byte form {@link AfPacket#fanoutArgument} on a little-endian machine, and it adds the
 * group's maximum size (0: the default of 256).
 */
public final class FanoutArgs
{
    public static final StructLayout LAYOUT = structLayout(
        JAVA_SHORT.withName("id"),
        JAVA_SHORT.withName("type_flags"),
        JAVA_INT.withName("max_num_members")).withName("fanout_args");

    public static final int SIZE = Layouts.size(LAYOUT);
    public static final int ID_OFFSET = Layouts.offset(LAYOUT, "id");
    public static final int TYPE_FLAGS_OFFSET = Layouts.offset(LAYOUT, "type_flags");
    public static final int MAX_NUM_MEMBERS_OFFSET = Layouts.offset(LAYOUT, "max_num_members");

    private FanoutArgs()
    {
    }
}
