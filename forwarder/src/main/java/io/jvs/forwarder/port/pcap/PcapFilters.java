package io.jvs.forwarder.port.pcap;

import org.pcap4j.core.BpfProgram;
import org.pcap4j.core.NotOpenException;
import org.pcap4j.core.PcapHandle;
import org.pcap4j.core.PcapNativeException;
import org.pcap4j.core.Pcaps;

/**
 * Control-path helpers shared by the pcap ports: filters and link-type names.
 */
final class PcapFilters
{
    private PcapFilters()
    {
    }

    /**
     * Compiles a filter expression for the handle's link type (optimised, netmask unknown) and installs it.
     *
     * @param owner what the handle reads, for the message: "pcap file x.pcap", "interface eth0".
     * @throws PcapPortException naming the expression, the owner and libpcap's complaint.
     */
    static void apply(final PcapHandle handle, final String expression, final String owner)
    {
        try
        {
            handle.setFilter(expression, BpfProgram.BpfCompileMode.OPTIMIZE);
        }
        catch (final PcapNativeException | NotOpenException ex)
        {
            throw new PcapPortException("filter \"" + expression + "\" for " + owner + ": libpcap cannot use it: " +
                ex.getMessage(), ex);
        }
    }

    /**
     * @return libpcap's name for a link type and its number, e.g. "RAW (12)".
     */
    static String linkTypeName(final int linkType)
    {
        try
        {
            return Pcaps.dataLinkValToName(linkType) + " (" + linkType + ")";
        }
        catch (final PcapNativeException ex)
        {
            return Integer.toString(linkType);
        }
    }
}
