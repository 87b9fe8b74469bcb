package io.jvs.forwarder.replay;

import io.jvs.core.packet.Frames;
import io.jvs.core.pcap.LinkType;
import org.pcap4j.core.BpfProgram;
import org.pcap4j.core.NotOpenException;
import org.pcap4j.core.PcapHandle;
import org.pcap4j.core.PcapNativeException;
import org.pcap4j.core.Pcaps;
import org.pcap4j.packet.namednumber.DataLinkType;

import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.HashMap;
import java.util.Map;

/**
 * A tcpdump filter expression applied to capture records as they were captured (with their own link
 * layer), through libpcap's compiler and its filter machine, so an expression means here what it means to
 * {@code tcpdump -r}. A pcapng file may mix link types: the expression is compiled once per type met.
 */
final class ReplayFilter implements AutoCloseable
{
    private static final int SNAP_LENGTH = 262_144;

    private final String expression;
    private final Map<Integer, BpfProgram> programs = new HashMap<>();
    private byte[] copy = new byte[4096];

    /**
     * @param expression a filter expression; checked at once against Ethernet, so a typo is reported
     *                   before anything is read.
     * @throws IllegalArgumentException with libpcap's complaint.
     */
    ReplayFilter(final String expression)
    {
        this.expression = expression;
        program(LinkType.ETHERNET);
    }

    /**
     * @return whether the record passes the filter.
     * @throws IllegalArgumentException when the expression cannot be compiled for this record's link type.
     */
    boolean matches(final long record, final int captured, final long original, final int linkType)
    {
        final BpfProgram program = program(linkType);
        if (copy.length < captured)
        {
            copy = new byte[Integer.highestOneBit(captured) << 1];
        }
        for (int i = 0; i < captured; i++)
        {
            copy[i] = (byte)Frames.u8(record + i);
        }
        return program.applyFilter(copy, (int)Math.min(Integer.MAX_VALUE, original), captured);
    }

    private BpfProgram program(final int linkType)
    {
        final BpfProgram existing = programs.get(linkType);
        if (existing != null)
        {
            return existing;
        }
        final int dlt = LinkType.toDlt(linkType);
        // A dead handle's compile, not Pcaps.compileFilter: only the handle's gives libpcap's reason (pcap_geterr).
        try (PcapHandle handle = Pcaps.openDead(DataLinkType.getInstance(dlt), SNAP_LENGTH))
        {
            final BpfProgram program = handle.compileFilter(expression, BpfProgram.BpfCompileMode.OPTIMIZE,
                netmaskUnknown());
            programs.put(linkType, program);
            return program;
        }
        catch (final PcapNativeException | NotOpenException | RuntimeException ex)
        {
            final String reason = ex.getMessage() == null ? ex.getClass().getSimpleName() :
                ex.getMessage().replace("Error occurred in pcap_compile: ", "");
            throw new IllegalArgumentException("--filter '" + expression + "' for link type " +
                LinkType.name(linkType) + ": libpcap: " + reason, ex);
        }
    }

    private static Inet4Address netmaskUnknown()
    {
        try
        {
            return (Inet4Address)InetAddress.getByAddress(new byte[] {-1, -1, -1, -1});
        }
        catch (final UnknownHostException ex)
        {
            throw new IllegalStateException(ex);
        }
    }

    @Override
    public void close()
    {
        programs.values().forEach(BpfProgram::free);
        programs.clear();
    }
}
