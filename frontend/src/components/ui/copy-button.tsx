import { useState } from 'react';

type CopyState = 'idle' | 'copied' | 'failed';

type CopyButtonProps = {
  text: string;
  /** The button's text; its accessible name says what is copied when several are on a page. */
  label?: string;
  accessibleLabel?: string;
  className?: string;
};

/** Copies `text` to the clipboard and says whether it worked, politely, next to the button. */
export const CopyButton = ({ text, label = 'Copy', accessibleLabel, className = 'button' }: CopyButtonProps) => {
  const [copy, setCopy] = useState<CopyState>('idle');

  const onCopy = async () => {
    try {
      await navigator.clipboard.writeText(text);
      setCopy('copied');
    } catch {
      // No permission, or an insecure (http) origin: the text can still be selected by hand.
      setCopy('failed');
    }
  };

  return (
    <>
      <button type="button" className={className} aria-label={accessibleLabel} onClick={() => void onCopy()}>
        {label}
      </button>
      {/* Not role="status": a run page's status badge owns that role. */}
      <span aria-live="polite">
        {copy === 'copied' ? 'Copied.' : copy === 'failed' ? 'Could not copy: select the text instead.' : ''}
      </span>
    </>
  );
};
