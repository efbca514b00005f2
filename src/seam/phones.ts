/** Phone canonicalisation (seam for the fleet, README.md), from libphonenumber-js where installed. */
export { loadPhoneTools, PHONE_MODULE, phonePeerMissing } from '../internal/phones/phone.js';
