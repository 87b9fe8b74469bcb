package io.jvs.tools.synth;

import io.jvs.core.packet.EthernetHeader;
import io.jvs.forwarder.synth.AddressPlan;
import io.jvs.forwarder.synth.MalformedKind;
import io.jvs.forwarder.synth.SynthSettings;
import io.jvs.forwarder.synth.SynthSummary;

import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.Locale;

/**
 * The few lines {@code jvs synth} prints about what it wrote: enough to see the mix at a glance and to
 * compare with what a replay reports.
 */
final class SummaryPrinter
{
    private SummaryPrinter()
    {
    }

    static void print(final PrintWriter out, final Path file, final Path rules, final SynthSettings settings,
        final SynthSummary summary, final double seconds)
    {
        final double traceSeconds = (summary.lastTimestampNs() - summary.firstTimestampNs()) / 1e9;
        out.printf(Locale.ROOT,
            "jvs synth: wrote %d packets to %s in %.2f s (%.2f Mpps); %.3f s of traffic at %d pps%n",
            summary.packets(), file, seconds, summary.packets() / seconds / 1e6, traceSeconds, settings.ratePps());
        out.printf(Locale.ROOT, "  tcp %d packets, %d connections (%d reset), per service %s%n",
            summary.tcpPackets(), summary.tcpConnections(), summary.resetConnections(),
            summary.tcpConnectionsPerService());
        out.printf(Locale.ROOT, "  udp %d packets, %d flows, %d fragments%n",
            summary.udpPackets(), summary.udpFlows(), summary.fragments());
        out.printf(Locale.ROOT, "  icmp-error %d, ipv6 %d, vlan %d%n",
            summary.icmpErrors(), summary.ipv6Packets(), summary.vlanPackets());
        final StringBuilder malformed = new StringBuilder();
        for (final MalformedKind kind : MalformedKind.values())
        {
            malformed.append(' ').append(kind.label()).append(' ').append(summary.malformed(kind));
        }
        out.printf(Locale.ROOT, "  malformed %d:%s%n", summary.malformedPackets(), malformed);
        out.printf(Locale.ROOT, "  frames from %s to %s%n", EthernetHeader.macToString(AddressPlan.ROUTER_MAC),
            EthernetHeader.macToString(AddressPlan.BALANCER_MAC));
        if (rules != null)
        {
            out.printf(Locale.ROOT, "  rules written to %s%n", rules);
        }
        out.flush();
    }
}
