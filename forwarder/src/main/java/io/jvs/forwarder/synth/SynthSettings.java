package io.jvs.forwarder.synth;

import io.jvs.core.sched.SchedulerKind;
import io.jvs.core.service.ForwardMethod;
import io.jvs.core.service.RealServer;

import java.util.List;
import java.util.Locale;

/**
 * What {@link TraceSynthesizer} generates. Every field has a default ({@link #defaults()}, {@link #builder()});
 * the constructor checks each and names a bad one as the {@code jvs synth} option that sets it, so the
 * command can print the message as it is.
 *
 * @param seed                 the only source of randomness: the same settings give the same bytes.
 * @param clients              client addresses, 1..{@value #MAX_CLIENTS} (default 10000).
 * @param services             dual-stack TCP services on port 80, 1..{@value #MAX_SERVICES} (default 4).
 * @param serversPerService    real servers per service, 1..{@value #MAX_SERVERS_PER_SERVICE} (default 4).
 * @param scheduler            the services' scheduler in the rules, a name jvs knows (default wlc).
 * @param method               the forwarding method in the rules (default NAT).
 * @param weights              real server weights, repeated when shorter than a service's servers; empty
 *                             for the pattern 1, 2, 3, 4, 1, 2, ... (default).
 * @param ratePps              packets per second of the schedule, 1..10^9 (default 100000).
 * @param durationSeconds      the trace's length when {@code packets} is 0 (default 1).
 * @param packets              packets to write; 0 to take them from the duration (default).
 * @param ipv6Share            share of clients on IPv6 (default 0.2).
 * @param vlanShare            share of clients whose frames carry an 802.1Q tag (default 0.1).
 * @param udpShare             share of new flows that are UDP flows to port 53 rather than TCP
 *                             connections (default 0.2).
 * @param icmpErrorShare       share of packets that are ICMP errors about a connection (default 0.002).
 * @param fragmentShare        share of UDP datagrams that are large and sent in fragments (default 0.05).
 * @param malformedShare       share of packets that are malformed (default 0.005).
 * @param rstShare             share of TCP connections the client ends with RST, not FIN (default 0.1).
 * @param zipfExponent         the Zipf exponent of service and client popularity, 0 and up (default 1).
 * @param nanosecondTimestamps a nanosecond pcap (default) or a microsecond one.
 * @param startEpochNs         the first packet's time, ns since 1970 (default 2026-01-01T00:00:00Z).
 * @param concurrentFlows      flows open at once, 1..{@value #MAX_CONCURRENT_FLOWS} (default 1000).
 */
public record SynthSettings(
    long seed,
    int clients,
    int services,
    int serversPerService,
    String scheduler,
    ForwardMethod method,
    List<Integer> weights,
    long ratePps,
    double durationSeconds,
    long packets,
    double ipv6Share,
    double vlanShare,
    double udpShare,
    double icmpErrorShare,
    double fragmentShare,
    double malformedShare,
    double rstShare,
    double zipfExponent,
    boolean nanosecondTimestamps,
    long startEpochNs,
    int concurrentFlows)
{
    /** Clients are numbered into 100.64.0.0/10 (2^22 addresses, less the first and last). */
    public static final int MAX_CLIENTS = (1 << 22) - 2;
    public static final int MAX_SERVICES = 1000;
    public static final int MAX_SERVERS_PER_SERVICE = 250;
    /** As many as one client has ephemeral ports: even if one client had every open flow, its ports differ. */
    public static final int MAX_CONCURRENT_FLOWS = 60_999 - 32_768 + 1;
    /** A rate whose nanosecond schedule still has whole nanoseconds to step by. */
    public static final long MAX_RATE_PPS = 1_000_000_000L;
    /** 2026-01-01T00:00:00Z. */
    public static final long DEFAULT_START_EPOCH_NS = 1_767_225_600L * 1_000_000_000L;
    private static final long LAST_PCAP_SECOND = 0xFFFF_FFFFL;

    public SynthSettings
    {
        weights = List.copyOf(weights);
        scheduler = scheduler.toLowerCase(Locale.ROOT);
        requireRange("clients", clients, 1, MAX_CLIENTS);
        requireRange("services", services, 1, MAX_SERVICES);
        requireRange("servers-per-service", serversPerService, 1, MAX_SERVERS_PER_SERVICE);
        requireRange("concurrent-flows", concurrentFlows, 1, MAX_CONCURRENT_FLOWS);
        if (SchedulerKind.byName(scheduler) == null)
        {
            throw new IllegalArgumentException("scheduler " + scheduler + " is not a scheduler jvs knows");
        }
        for (final int weight : weights)
        {
            requireRange("weights", weight, 0, RealServer.MAX_WEIGHT);
        }
        requireRange("rate", ratePps, 1, MAX_RATE_PPS);
        if (packets < 0)
        {
            throw new IllegalArgumentException("packets must be 1 or more, not " + packets);
        }
        if (packets == 0 && !(durationSeconds > 0 && durationSeconds * ratePps <= Long.MAX_VALUE / 2))
        {
            throw new IllegalArgumentException("duration must be above 0 seconds, not " + durationSeconds);
        }
        requireShare("ipv6-share", ipv6Share);
        requireShare("vlan-share", vlanShare);
        requireShare("udp-share", udpShare);
        requireShare("icmp-error-share", icmpErrorShare);
        requireShare("fragment-share", fragmentShare);
        requireShare("malformed-share", malformedShare);
        requireShare("rst-share", rstShare);
        if (icmpErrorShare + malformedShare > 1)
        {
            throw new IllegalArgumentException("icmp-error-share and --malformed-share add up to more than 1");
        }
        if (!(zipfExponent >= 0 && zipfExponent <= 100))
        {
            throw new IllegalArgumentException("zipf must be in [0, 100], not " + zipfExponent);
        }
        if (startEpochNs < 0)
        {
            throw new IllegalArgumentException("start must be 1970 or later, not " + startEpochNs + " ns");
        }
        final long count = packets > 0 ? packets : Math.max(1, Math.round(durationSeconds * ratePps));
        final long lastSecond = startEpochNs / 1_000_000_000L + (count - 1) / ratePps + 1;
        if (lastSecond > LAST_PCAP_SECOND)
        {
            throw new IllegalArgumentException((packets > 0 ? "packets" : "duration") + " at rate " + ratePps +
                " would run past 2106, pcap's end");
        }
    }

    /**
     * @return every default.
     */
    public static SynthSettings defaults()
    {
        return builder().build();
    }

    public static Builder builder()
    {
        return new Builder();
    }

    /**
     * @return the packets the trace holds: {@code packets}, or the duration times the rate (at least 1).
     */
    public long totalPackets()
    {
        return packets > 0 ? packets : Math.max(1, Math.round(durationSeconds * ratePps));
    }

    /**
     * @param server a server's index in its service.
     * @return its weight.
     */
    public int weight(final int server)
    {
        return weights.isEmpty() ? 1 + server % 4 : weights.get(server % weights.size());
    }

    private static void requireRange(final String name, final long value, final long low, final long high)
    {
        if (value < low || value > high)
        {
            throw new IllegalArgumentException(name + " must be in " + low + ".." + high + ", not " + value);
        }
    }

    private static void requireShare(final String name, final double share)
    {
        if (!(share >= 0 && share <= 1))
        {
            throw new IllegalArgumentException(name + " must be in [0, 1], not " + share);
        }
    }

    /** Settings field by field, starting from the defaults. */
    public static final class Builder
    {
        private long seed = 1;
        private int clients = 10_000;
        private int services = 4;
        private int serversPerService = 4;
        private String scheduler = SchedulerKind.DEFAULT_NAME;
        private ForwardMethod method = ForwardMethod.NAT;
        private List<Integer> weights = List.of();
        private long ratePps = 100_000;
        private double durationSeconds = 1;
        private long packets;
        private double ipv6Share = 0.2;
        private double vlanShare = 0.1;
        private double udpShare = 0.2;
        private double icmpErrorShare = 0.002;
        private double fragmentShare = 0.05;
        private double malformedShare = 0.005;
        private double rstShare = 0.1;
        private double zipfExponent = 1.0;
        private boolean nanosecondTimestamps = true;
        private long startEpochNs = DEFAULT_START_EPOCH_NS;
        private int concurrentFlows = 1000;

        private Builder()
        {
        }

        public Builder seed(final long value)
        {
            seed = value;
            return this;
        }

        public Builder clients(final int value)
        {
            clients = value;
            return this;
        }

        public Builder services(final int value)
        {
            services = value;
            return this;
        }

        public Builder serversPerService(final int value)
        {
            serversPerService = value;
            return this;
        }

        public Builder scheduler(final String value)
        {
            scheduler = value;
            return this;
        }

        public Builder method(final ForwardMethod value)
        {
            method = value;
            return this;
        }

        public Builder weights(final List<Integer> value)
        {
            weights = value;
            return this;
        }

        public Builder ratePps(final long value)
        {
            ratePps = value;
            return this;
        }

        public Builder durationSeconds(final double value)
        {
            durationSeconds = value;
            return this;
        }

        public Builder packets(final long value)
        {
            packets = value;
            return this;
        }

        public Builder ipv6Share(final double value)
        {
            ipv6Share = value;
            return this;
        }

        public Builder vlanShare(final double value)
        {
            vlanShare = value;
            return this;
        }

        public Builder udpShare(final double value)
        {
            udpShare = value;
            return this;
        }

        public Builder icmpErrorShare(final double value)
        {
            icmpErrorShare = value;
            return this;
        }

        public Builder fragmentShare(final double value)
        {
            fragmentShare = value;
            return this;
        }

        public Builder malformedShare(final double value)
        {
            malformedShare = value;
            return this;
        }

        public Builder rstShare(final double value)
        {
            rstShare = value;
            return this;
        }

        public Builder zipfExponent(final double value)
        {
            zipfExponent = value;
            return this;
        }

        public Builder nanosecondTimestamps(final boolean value)
        {
            nanosecondTimestamps = value;
            return this;
        }

        public Builder startEpochNs(final long value)
        {
            startEpochNs = value;
            return this;
        }

        public Builder concurrentFlows(final int value)
        {
            concurrentFlows = value;
            return this;
        }

        /**
         * @return the settings.
         * @throws IllegalArgumentException naming the first bad field.
         */
        public SynthSettings build()
        {
            return new SynthSettings(seed, clients, services, serversPerService, scheduler, method, weights, ratePps,
                durationSeconds, packets, ipv6Share, vlanShare, udpShare, icmpErrorShare, fragmentShare,
                malformedShare, rstShare, zipfExponent, nanosecondTimestamps, startEpochNs, concurrentFlows);
        }
    }
}
