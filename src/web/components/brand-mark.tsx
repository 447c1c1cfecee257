// The deployment's logo beside its name (header, sign-in), or Cove's mark when it set none.
export function BrandMark({ logoUrl }: { logoUrl: string }) {
  return logoUrl ? <img className="brand-logo" src={logoUrl} alt="" /> : <span className="brand-mark" aria-hidden="true" />;
}
