/** What a user typed to reach one agent. */
export interface StoredCredential {
  scheme: string;
  /** API key or bearer token. */
  value?: string;
  clientId?: string;
  clientSecret?: string;
  /** Kept in localStorage (across sessions) instead of sessionStorage. */
  remember: boolean;
}

const key = (origin: string) => `a2a-console:credential:${origin}`;

function read(storage: Storage, origin: string): StoredCredential | undefined {
  try {
    const text = storage.getItem(key(origin));
    return text ? (JSON.parse(text) as StoredCredential) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Credentials per agent origin: in sessionStorage (gone with the tab) unless the user ticked
 * "remember", then in localStorage; the other store is cleared, so a secret lives in one place.
 */
export const credentialStore = {
  load(origin: string): StoredCredential | undefined {
    return read(sessionStorage, origin) ?? read(localStorage, origin);
  },
  save(origin: string, credential: StoredCredential): void {
    const [keep, drop] = credential.remember ? [localStorage, sessionStorage] : [sessionStorage, localStorage];
    drop.removeItem(key(origin));
    keep.setItem(key(origin), JSON.stringify(credential));
  },
  forget(origin: string): void {
    sessionStorage.removeItem(key(origin));
    localStorage.removeItem(key(origin));
  },
};
