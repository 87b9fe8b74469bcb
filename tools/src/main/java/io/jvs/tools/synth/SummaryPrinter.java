package io.jvs.tools.synth;

import io.jvs.forwarder.report.Counts;
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
            "jvs synth: wrote %s to %s in %.2f s (%.2f Mpps); %.3f s of traffic at %d pps%n",
            Counts.of(summary.packets(), "packet"), file, seconds, summary.packets() / seconds / 1e6, traceSeconds, settings.ratePps());
        out.printf(Locale.ROOT, "  tcp %s, %s (%d reset), per service %s%n",
            Counts.of(summary.tcpPackets(), "packet"), Counts.of(summary.tcpConnections(), "connection"),
            summary.resetConnections(),
            summary.tcpConnectionsPerService());
        out.printf(Locale.ROOT, "  udp %s, %s, %s%n", Counts.of(summary.udpPackets(), "packet"),
            Counts.of(summary.udpFlows(), "flow"), Counts.of(summary.fragments(), "fragment"));
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
