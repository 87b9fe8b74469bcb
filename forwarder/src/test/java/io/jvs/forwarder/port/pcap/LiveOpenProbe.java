package io.jvs.forwarder.port.pcap;

/**
 * Run in a child JVM by {@link PcapLiveErrorsTest} with capabilities dropped: tries to open a live port and
 * prints what happened.
 */
public final class LiveOpenProbe
{
    private LiveOpenProbe()
    {
    }

    public static void main(final String[] args)
    {
        try (PcapLivePort port = PcapLivePort.open(0, args[0]))
        {
            System.out.println("opened " + port.name());
        }
        catch (final PcapPortException ex)
        {
            System.out.println("refused: " + ex.getMessage());
        }
    }
}
