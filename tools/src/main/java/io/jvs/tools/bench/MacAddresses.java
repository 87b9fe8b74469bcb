package io.jvs.tools.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Ethernet addresses as operators write them: six hex pairs separated by colons.
 */
final class MacAddresses
{
    private MacAddresses()
    {
    }

    /**
     * @throws IllegalArgumentException naming the text when it is not a MAC address.
     */
    static byte[] parse(final String text)
    {
        final String[] parts = text == null ? new String[0] : text.split(":", -1);
        if (parts.length != 6)
        {
            throw new IllegalArgumentException("not a MAC address (six hex pairs with colons): " + text);
        }
        final byte[] mac = new byte[6];
        for (int i = 0; i < 6; i++)
        {
            if (parts[i].length() != 2 || Character.digit(parts[i].charAt(0), 16) < 0 ||
                Character.digit(parts[i].charAt(1), 16) < 0)
            {
                throw new IllegalArgumentException("not a MAC address (six hex pairs with colons): " + text);
            }
            mac[i] = (byte)Integer.parseInt(parts[i], 16);
        }
        return mac;
    }

    /**
     * @return the MAC address of an interface of this network namespace (from sysfs).
     * @throws IOException naming the interface when there is no such interface.
     */
    static byte[] ofDevice(final String device) throws IOException
    {
        final Path address = Path.of("/sys/class/net", device, "address");
        if (!Files.exists(address))
        {
            throw new IOException("no interface " + device + " here (no " + address + "); give --src-mac");
        }
        return parse(Files.readString(address).trim());
    }
}
