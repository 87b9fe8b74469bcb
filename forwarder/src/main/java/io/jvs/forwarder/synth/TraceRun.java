package io.jvs.forwarder.synth;

import io.jvs.core.packet.L4Headers;
import io.jvs.core.pcap.PcapWriter;

import java.io.IOException;

/**
 * One synthesis: the schedule, the flows and the frames, written as they are made. Every slot of the
 * schedule holds one frame; for each, a die decides between a malformed frame, an ICMP error about an open
 * connection and the next frame of a flow (a flow chosen at random among the open ones, or a new one where
 * the slot chosen is free). Only what the client side sends is written: SYN, ACK, data, FIN or RST, never
 * the service's replies, which a direct-routing or tunnelling balancer never sees.
 */
final class TraceRun
{
    private static final long NANOS_PER_SECOND = 1_000_000_000L;
    private static final int MOST_DATA_SEGMENTS = 6;
    /** SYN, ACK and FIN or RST. */
    private static final int TCP_CONTROL_FRAMES = 3;
    private static final int MOST_DATAGRAMS = 3;
    private static final int ICMP_SEARCH = 64;
    private static final int[] MTUS_V4 = {1400, 1420, 1450, 1480, 1492};
    private static final int[] MTUS_V6 = {1280, 1400, 1420, 1450, 1480};
    private static final int FIN_ACK = L4Headers.TCP_FIN | L4Headers.TCP_ACK;
    private static final int RST_ACK = L4Headers.TCP_RST | L4Headers.TCP_ACK;
    private static final int PSH_ACK = HeaderWriter.TCP_PUSH | L4Headers.TCP_ACK;

    private final SynthSettings settings;
    private final PcapWriter writer;
    private final long frame;
    private final long total;
    private final SplitMix64 random;
    private final ZipfDistribution servicePopularity;
    private final ZipfDistribution clientPopularity;
    private final FlowTable flows;
    private final ClientBook clients;
    private final FrameFactory factory;
    private final TraceCounters counters;
    private long index;

    /**
     * @param frame   room for one frame of up to 2 KiB, off-heap.
     * @param factory the frame factory, with its own memory.
     */
    TraceRun(final SynthSettings settings, final PcapWriter writer, final long frame, final FrameFactory factory)
    {
        this.settings = settings;
        this.writer = writer;
        this.frame = frame;
        this.factory = factory;
        this.total = settings.totalPackets();
        this.random = new SplitMix64(settings.seed());
        this.servicePopularity = new ZipfDistribution(settings.services(), settings.zipfExponent());
        this.clientPopularity = new ZipfDistribution(settings.clients(), settings.zipfExponent());
        this.flows = new FlowTable(settings.concurrentFlows());
        this.clients = new ClientBook(settings);
        this.counters = new TraceCounters(settings.services());
    }

    SynthSummary run() throws IOException
    {
        while (index < total)
        {
            step();
        }
        return counters.summary();
    }

    /**
     * Fills the next slot or slots (a fragmented datagram takes one per fragment). As long as the open flows
     * owe fewer frames than there are slots left, anything may happen; once they owe as many, only they send,
     * so every connection in the trace is complete.
     */
    private void step() throws IOException
    {
        final long room = total - index - flows.owed();
        if (room > 0)
        {
            final double die = random.nextDouble();
            if (die < settings.malformedShare())
            {
                malformed();
                return;
            }
            if (die < settings.malformedShare() + settings.icmpErrorShare() && icmpError())
            {
                return;
            }
        }
        int slot = random.nextInt(flows.capacity());
        if (flows.isFree(slot) && !openFlow(slot, room))
        {
            if (flows.open() == 0)
            {
                openSmallUdpFlow(slot);
            }
            else
            {
                slot = flows.nextOpen(slot);
            }
        }
        if (flows.kind[slot] == FlowTable.TCP)
        {
            sendTcp(slot);
        }
        else
        {
            sendUdp(slot);
        }
    }

    /**
     * @param room frames the trace has left beyond what open flows owe.
     * @return false, with nothing opened, when the flow drawn would not fit.
     */
    private boolean openFlow(final int slot, final long room)
    {
        final boolean udp = random.chance(settings.udpShare());
        final int client = clientPopularity.rank(random.nextDouble());
        if (udp)
        {
            final int datagrams = random.between(1, MOST_DATAGRAMS);
            final int fragments = FragmentWriter.count(clients.isV6(client));
            int large = 0;
            int frames = 0;
            for (int datagram = 0; datagram < datagrams; datagram++)
            {
                final boolean fragmented = random.chance(settings.fragmentShare());
                large |= fragmented ? 1 << datagram : 0;
                frames += fragmented ? fragments : 1;
            }
            if (frames > room)
            {
                return false;
            }
            openUdp(slot, client, datagrams, large, frames);
            return true;
        }
        final int service = servicePopularity.rank(random.nextDouble());
        final int dataSegments = random.between(1, MOST_DATA_SEGMENTS);
        if (TCP_CONTROL_FRAMES + dataSegments > room)
        {
            return false;
        }
        flows.open(slot, FlowTable.TCP, client, service, clients.takePort(client), TCP_CONTROL_FRAMES + dataSegments);
        flows.units[slot] = dataSegments;
        flows.sequence[slot] = (int)random.nextLong();
        flows.acknowledgement[slot] = (int)random.nextLong() + 1;
        final boolean reset = random.chance(settings.rstShare());
        flows.variant[slot] = reset ? 1 : 0;
        counters.tcpConnections[service]++;
        counters.resetConnections += reset ? 1 : 0;
        return true;
    }

    private void openSmallUdpFlow(final int slot)
    {
        openUdp(slot, clientPopularity.rank(random.nextDouble()), 1, 0, 1);
    }

    private void openUdp(final int slot, final int client, final int datagrams, final int large, final int frames)
    {
        flows.open(slot, FlowTable.UDP, client, 0, clients.takePort(client), frames);
        flows.units[slot] = datagrams;
        flows.sequence[slot] = 0;
        flows.variant[slot] = large;
        counters.udpFlows[0]++;
    }

    private void sendTcp(final int slot) throws IOException
    {
        final int client = flows.client[slot];
        final int port = flows.port[slot];
        final boolean v6 = clients.isV6(client);
        final int vlanId = clients.vlanId(client);
        factory.endpoint(client, flows.service[slot], v6, vlanId, AddressPlan.TCP_PORT);
        final int sent = flows.sent[slot];
        final int sequence = flows.sequence[slot];
        final int length;
        if (sent == 0)
        {
            length = factory.tcp(frame, port, sequence, 0, L4Headers.TCP_SYN, 0);
            flows.sequence[slot] = sequence + 1;
        }
        else if (sent == 1)
        {
            length = factory.tcp(frame, port, sequence, acknowledge(slot, false), L4Headers.TCP_ACK, 0);
        }
        else if (sent < 2 + flows.units[slot])
        {
            // Mostly requests of a few hundred bytes, some uploads up to a full segment.
            final int payload = random.chance(0.7) ? random.between(40, 600) : random.between(600, factory.mss());
            final int acknowledged = acknowledge(slot, sent > 2);
            length = factory.tcp(frame, port, sequence, acknowledged, PSH_ACK, payload);
            flows.sequence[slot] = sequence + payload;
        }
        else
        {
            length = factory.tcp(frame, port, sequence, acknowledge(slot, true),
                flows.variant[slot] == 1 ? RST_ACK : FIN_ACK, 0);
        }
        emit(length);
        counters.tcpPackets++;
        counters.wellFormed(v6, vlanId);
        if (flows.sent(slot, 1))
        {
            clients.release(client, port);
        }
    }

    /**
     * The service answers each request before the client's next segment, so what the client acknowledges
     * grows by that reply; between segments the table holds what the client last acknowledged, where the
     * service's next reply starts (what an ICMP error quotes).
     *
     * @param replied whether a reply came since the client's last segment.
     * @return the acknowledgement number to send.
     */
    private int acknowledge(final int slot, final boolean replied)
    {
        if (replied)
        {
            flows.acknowledgement[slot] += random.nextInt(64_000);
        }
        return flows.acknowledgement[slot];
    }

    private void sendUdp(final int slot) throws IOException
    {
        final int client = flows.client[slot];
        final int port = flows.port[slot];
        final boolean v6 = clients.isV6(client);
        final int vlanId = clients.vlanId(client);
        factory.endpoint(client, flows.service[slot], v6, vlanId, AddressPlan.UDP_PORT);
        final int datagram = flows.sequence[slot]++;
        int frames = 1;
        if ((flows.variant[slot] & 1 << datagram) != 0)
        {
            frames = FragmentWriter.count(v6);
            factory.prepareLargeDatagram(port);
            for (int fragment = 0; fragment < frames; fragment++)
            {
                emit(factory.fragment(frame, fragment, port));
                counters.wellFormed(v6, vlanId);
            }
            counters.fragments += frames;
        }
        else
        {
            emit(factory.dnsQuery(frame, port, random.nextInt(0x10000), random.between(1, 63)));
            counters.wellFormed(v6, vlanId);
        }
        counters.udpPackets += frames;
        if (flows.sent(slot, frames))
        {
            clients.release(client, port);
        }
    }

    /**
     * @return false when no open connection has got as far as a reply, so there is nothing to report.
     */
    private boolean icmpError() throws IOException
    {
        if (flows.open() == 0)
        {
            return false;
        }
        final int start = random.nextInt(flows.capacity());
        for (int probe = 0; probe < ICMP_SEARCH; probe++)
        {
            final int slot = (start + probe) % flows.capacity();
            // After the first request: what is too big is the service's answer to it.
            if (flows.kind[slot] == FlowTable.TCP && flows.sent[slot] > 2)
            {
                final int client = flows.client[slot];
                final boolean v6 = clients.isV6(client);
                final int vlanId = clients.vlanId(client);
                factory.endpoint(client, flows.service[slot], v6, vlanId, AddressPlan.TCP_PORT);
                final int[] mtus = v6 ? MTUS_V6 : MTUS_V4;
                emit(factory.icmpTooBig(frame, flows.port[slot], flows.acknowledgement[slot],
                    mtus[random.nextInt(mtus.length)]));
                counters.icmpErrors++;
                counters.wellFormed(v6, vlanId);
                return true;
            }
        }
        return false;
    }

    private void malformed() throws IOException
    {
        MalformedKind kind = MalformedKind.of(random.nextInt(MalformedKind.values().length));
        int client = clientPopularity.rank(random.nextDouble());
        if (kind == MalformedKind.IHL_BELOW_FIVE)
        {
            // An IPv4 defect: find an IPv4 client, or break the version instead when there seems to be none.
            for (int attempt = 0; attempt < 16 && clients.isV6(client); attempt++)
            {
                client = clientPopularity.rank(random.nextDouble());
            }
            kind = clients.isV6(client) ? MalformedKind.BAD_IP_VERSION : kind;
        }
        final int service = kind == MalformedKind.UDP_LENGTH_WRONG ? 0 : servicePopularity.rank(random.nextDouble());
        factory.endpoint(client, service, clients.isV6(client), clients.vlanId(client),
            kind == MalformedKind.UDP_LENGTH_WRONG ? AddressPlan.UDP_PORT : AddressPlan.TCP_PORT);
        final int port = random.between(ClientBook.FIRST_EPHEMERAL_PORT, ClientBook.LAST_EPHEMERAL_PORT);
        emit(MalformedFrames.write(factory, frame, kind, random, port));
        counters.malformed[kind.ordinal()]++;
    }

    private void emit(final int length) throws IOException
    {
        final long timestampNs = timestampNs(index++);
        writer.write(timestampNs, frame, length);
        counters.written(timestampNs);
    }

    /**
     * @return the start plus n / rate seconds, to the nanosecond below; exact at every whole second.
     */
    private long timestampNs(final long n)
    {
        final long rate = settings.ratePps();
        return settings.startEpochNs() + n / rate * NANOS_PER_SECOND + n % rate * NANOS_PER_SECOND / rate;
    }
}
