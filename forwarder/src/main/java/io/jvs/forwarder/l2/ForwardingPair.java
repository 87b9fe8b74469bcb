package io.jvs.forwarder.l2;

import io.jvs.forwarder.port.Port;

/**
 * Two ports opened together so that frames received on one can leave by the other, e.g. two AF_XDP sockets
 * sharing one UMEM. When both ends are the same device, both methods return the same port.
 */
public interface ForwardingPair extends AutoCloseable
{
    Port receivePort();

    Port transmitPort();

    /**
     * @return how the ports were opened, for the benchmark's header line: modes, ring sizes, fallbacks taken.
     */
    String describe();

    @Override
    void close();
}
