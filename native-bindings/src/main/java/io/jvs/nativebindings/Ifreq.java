package io.jvs.nativebindings;

import java.lang.foreign.StructLayout;

import static java.lang.foreign.MemoryLayout.paddingLayout;
import static java.lang.foreign.MemoryLayout.sequenceLayout;
import static java.lang.foreign.MemoryLayout.structLayout;
import static java.lang.foreign.MemoryLayout.unionLayout;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

/**
 * {@code struct ifreq}, the argument of the interface ioctls: a name, then a union of which only the members
 * jvs asks for are laid out (index, flags, MTU). The union is 24 bytes because its largest member, a
 * {@code struct ifmap}, is.
 */
public final class Ifreq
{
    /** Interface names are at most 15 characters and a NUL. */
    public static final int IFNAMSIZ = 16;

    public static final StructLayout LAYOUT = structLayout(
        sequenceLayout(IFNAMSIZ, JAVA_BYTE).withName("ifr_name"),
        unionLayout(
            JAVA_INT.withName("ifr_ifindex"),
            JAVA_SHORT.withName("ifr_flags"),
            JAVA_INT.withName("ifr_mtu"),
            paddingLayout(24)).withName("ifr_ifru")).withName("ifreq");

    public static final int SIZE = Layouts.size(LAYOUT);
    public static final int NAME_OFFSET = Layouts.offset(LAYOUT, "ifr_name");
    public static final int IFINDEX_OFFSET = Layouts.offset(LAYOUT, "ifr_ifru", "ifr_ifindex");
    public static final int FLAGS_OFFSET = Layouts.offset(LAYOUT, "ifr_ifru", "ifr_flags");
    public static final int MTU_OFFSET = Layouts.offset(LAYOUT, "ifr_ifru", "ifr_mtu");

    public static final long SIOCGIFFLAGS = 0x8913;
    public static final long SIOCGIFMTU = 0x8921;
    public static final long SIOCGIFINDEX = 0x8933;

    public static final int IFF_UP = 0x1;
    /** The link is up as well (carrier); a veth reports it only when its peer is up too. */
    public static final int IFF_RUNNING = 0x40;

    private Ifreq()
    {
    }
}
