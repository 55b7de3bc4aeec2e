// A number kept in localStorage (panel widths), so the layout a user chose survives a reload.
import { type Dispatch, type SetStateAction, useEffect, useState } from 'react';

export function useStoredNumber(key: string, initial: number): [number, Dispatch<SetStateAction<number>>] {
  const [value, setValue] = useState(() => {
    try {
      const saved = Number(localStorage.getItem(key));
      return Number.isFinite(saved) && saved > 0 ? saved : initial;
    } catch {
      return initial;
    }
  });
  useEffect(() => {
    try {
      localStorage.setItem(key, String(value));
    } catch {
      // not remembered
    }
  }, [key, value]);
  return [value, setValue];
}
