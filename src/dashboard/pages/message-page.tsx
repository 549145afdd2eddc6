import { Layout } from "./layout.tsx";

export interface MessagePageProps {
  title: string;
  message: string;
  link?: { href: string; text: string };
}

/** A page that only says something: not found, forbidden, an error. */
export function MessagePage({
  title,
  message,
  link = { href: "/dashboard", text: "Go to the dashboard" },
}: MessagePageProps) {
  return (
    <Layout title={title}>
      <p>{message}</p>
      <p>
        <a href={link.href}>{link.text}</a>
      </p>
    </Layout>
  );
}
