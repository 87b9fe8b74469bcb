package io.jvs.core.io;

import java.io.IOException;
import java.nio.charset.CharacterCodingException;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileSystemException;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;
import java.nio.file.Path;
import java.util.Locale;

/**
 * One-line descriptions of I/O failures for the tools' and the daemon's messages: the path once and the system's
 * reason, as {@code cat} and {@code cp} put them ({@code farm.rules: no such file or directory}).
 */
public final class IoMessages
{
    private IoMessages()
    {
    }

    /**
     * @param ex an I/O failure.
     * @return "PATH: reason" when the exception names its file, else the reason alone.
     */
    public static String describe(final IOException ex)
    {
        if (ex instanceof final FileSystemException system && system.getFile() != null)
        {
            final String other = system.getOtherFile() == null ? "" : " -> " + system.getOtherFile();
            return system.getFile() + other + ": " + reason(ex);
        }
        return reason(ex);
    }

    /**
     * @param path the file that was being read or written.
     * @param ex   the failure.
     * @return "PATH: reason", the path given once even when the exception names it too.
     */
    public static String describe(final Path path, final IOException ex)
    {
        final String described = describe(ex);
        if (described.startsWith(path + ":") || ex instanceof FileSystemException system && system.getFile() != null)
        {
            return described;
        }
        return path + ": " + described;
    }

    /**
     * @param ex an I/O failure.
     * @return the system's reason, without the path: "no such file or directory", "no space left on device".
     */
    public static String reason(final IOException ex)
    {
        if (ex instanceof NoSuchFileException)
        {
            return "no such file or directory";
        }
        if (ex instanceof AccessDeniedException)
        {
            return "permission denied";
        }
        if (ex instanceof NotDirectoryException)
        {
            return "not a directory";
        }
        if (ex instanceof CharacterCodingException)
        {
            return "not UTF-8 text";
        }
        if (ex instanceof final FileSystemException system)
        {
            return system.getReason() == null ? "cannot be accessed" : lowerFirst(system.getReason());
        }
        return ex.getMessage() == null ? ex.getClass().getSimpleName() : lowerFirst(ex.getMessage());
    }

    /**
     * @return the text with its first letter in lower case unless the first word is an acronym ("BPF", "IPv6").
     */
    public static String lowerFirst(final String text)
    {
        if (text.length() < 2 || !Character.isUpperCase(text.charAt(0)) || Character.isUpperCase(text.charAt(1)) ||
            Character.isDigit(text.charAt(1)))
        {
            return text;
        }
        return text.substring(0, 1).toLowerCase(Locale.ROOT) + text.substring(1);
    }
}
