package io.jvs.forwarder.port.pcap;

import org.pcap4j.core.Pcaps;

/**
 * Loads libpcap through pcap4j once, turning a missing library into a message that says what to install.
 * <p>
 * pcap4j asks JNA for "pcap" (or the library named by {@code -Dorg.pcap4j.core.pcapLibName}). JNA tries
 * {@code libpcap.so}, which Debian's libpcap-dev provides, and failing that finds the versioned
 * {@code libpcap.so.0.8} of the runtime package libpcap0.8 in the system library directories: either package
 * is enough (checked on Debian 12 by hiding libpcap.so). CI installs both.
 */
final class Libpcap
{
    private static String version;

    private Libpcap()
    {
    }

    /**
     * @return libpcap's version string, e.g. "libpcap version 1.10.3 (with TPACKET_V3)".
     * @throws PcapPortException if libpcap cannot be loaded.
     */
    static synchronized String version()
    {
        if (version == null)
        {
            try
            {
                version = Pcaps.libVersion();
            }
            catch (final LinkageError ex)
            {
                throw new PcapPortException("libpcap cannot be loaded (" + ex.getMessage() + "): install it, " +
                    "e.g. apt-get install libpcap0.8, or name the library with -Dorg.pcap4j.core.pcapLibName=PATH", ex);
            }
        }
        return version;
    }
}
