/**
 * Where the service address keeper keeps its address book: an interface, so the keeper stays free
 * of I/O. The agent's file store is src/attachments/address-book-file-store.ts; the memory one
 * serves `vppnet plan` and reconciles without a state directory.
 */
import type { AddressBook } from './address-allocator.js';

export interface AddressBookStore {
  load(): Promise<AddressBook | undefined>;
  save(book: AddressBook): Promise<void>;
}

export function memoryAddressBookStore(initial?: AddressBook): AddressBookStore {
  let book = initial;
  return {
    load: () => Promise.resolve(book),
    save: (b) => {
      book = b;
      return Promise.resolve();
    },
  };
}
