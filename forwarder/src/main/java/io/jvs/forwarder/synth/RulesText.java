package io.jvs.forwarder.synth;

import io.jvs.core.net.IpAddress;

/**
 * The ipvsadm rules, in {@code ipvsadm -S -n} form, of the services a synthetic trace is addressed to: what
 * {@code ipvsadm -R} or core's RulesFile reads to set up a balancer that can forward the trace. No comment
 * line: core skips them, but ipvsadm -R would refuse one.
 */
final class RulesText
{
    private RulesText()
    {
    }

    static String of(final SynthSettings settings)
    {
        final StringBuilder text = new StringBuilder(256 * settings.services());
        for (int service = 0; service < settings.services(); service++)
        {
            for (final boolean v6 : new boolean[] {false, true})
            {
                appendService(text, settings, "-t", service, v6, AddressPlan.TCP_PORT);
            }
        }
        for (final boolean v6 : new boolean[] {false, true})
        {
            appendService(text, settings, "-u", 0, v6, AddressPlan.UDP_PORT);
        }
        return text.toString();
    }

    private static void appendService(
        final StringBuilder text,
        final SynthSettings settings,
        final String protocolOption,
        final int service,
        final boolean v6,
        final int port)
    {
        final String virtual = hostPort(AddressPlan.vip(service, v6), port);
        text.append("-A ").append(protocolOption).append(' ').append(virtual)
            .append(" -s ").append(settings.scheduler()).append('\n');
        for (int server = 0; server < settings.serversPerService(); server++)
        {
            text.append("-a ").append(protocolOption).append(' ').append(virtual)
                .append(" -r ").append(hostPort(AddressPlan.server(service, server, v6), port))
                .append(' ').append(settings.method().ipvsadmOption())
                .append(" -w ").append(settings.weight(server)).append('\n');
        }
    }

    private static String hostPort(final IpAddress address, final int port)
    {
        return address.toBracketedString() + ":" + port;
    }
}
