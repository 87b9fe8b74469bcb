package io.jvs.core.control;

import java.io.IOException;
import java.io.PushbackReader;
import java.io.Reader;
import java.util.ArrayList;
import java.util.List;

/**
 * Splits {@code ipvsadm -R}'s input into argument vectors as ipvsadm's {@code config_stream_read} does.
 * <ul>
 *   <li>Words are separated by space, tab and carriage return; a newline ends the line.</li>
 *   <li>A word "ipvsadm" is dropped wherever it is, so {@code ipvsadm -A ...} and {@code -A ...} both work.</li>
 *   <li>A blank line gives an empty vector (ipvsadm skips it); {@code #} means nothing special, so a comment
 *       line is a command line whose first word is not an option.</li>
 *   <li>The end of the input inside a run of two or more blanks drops that line's words and ends the input;
 *       a last line without a newline is read otherwise.</li>
 *   <li>A word is at most 4096 characters; a longer one is cut into several.</li>
 * </ul>
 */
public final class RestoreReader
{
    /** MAX_LINE_LENGTH in config_stream.h. */
    private static final int MAX_WORD = 4096;

    private final PushbackReader in;

    /**
     * @param in the input; read one character at a time, so buffer it.
     */
    public RestoreReader(final Reader in)
    {
        this.in = new PushbackReader(in, 1);
    }

    /**
     * @return the next line's words (possibly none), or null at the end of the input.
     * @throws IOException when the input cannot be read.
     */
    public List<String> nextLine() throws IOException
    {
        final List<String> words = new ArrayList<>();
        int kept = 0;
        while (true)
        {
            final int c = in.read();
            if (c < 0)
            {
                return kept == 0 ? null : words;
            }
            if (isBlank(c) || c == '\n')
            {
                // fscanf matched nothing: skip blanks up to a newline (the line) or a word.
                int skip = c;
                while (true)
                {
                    if (skip < 0)
                    {
                        return null;
                    }
                    if (skip == '\n')
                    {
                        return words;
                    }
                    if (!isBlank(skip))
                    {
                        in.unread(skip);
                        break;
                    }
                    skip = in.read();
                }
                continue;
            }
            final StringBuilder word = new StringBuilder().append((char)c);
            int end;
            while (true)
            {
                end = in.read();
                if (end < 0 || isBlank(end) || end == '\n')
                {
                    break;
                }
                if (word.length() == MAX_WORD)
                {
                    in.unread(end);
                    end = 'x';
                    break;
                }
                word.append((char)end);
            }
            if (!"ipvsadm".contentEquals(word))
            {
                words.add(word.toString());
                kept++;
            }
            if (end == '\n')
            {
                return words;
            }
            if (end < 0)
            {
                return kept == 0 ? null : words;
            }
        }
    }

    private static boolean isBlank(final int c)
    {
        return c == ' ' || c == '\t' || c == '\r';
    }
}
