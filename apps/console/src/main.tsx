import { TransportProvider } from "@connectrpc/connect-query";
import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { StrictMode } from "react";
import { createRoot } from "react-dom/client";
import { BrowserRouter, Link, Route, Routes } from "react-router";
import { transport } from "./api";
import { Home } from "./pages/Home";
import { Invite } from "./pages/Invite";
import { ResetPassword } from "./pages/ResetPassword";
import { SignIn } from "./pages/SignIn";
import { VerifyEmail } from "./pages/VerifyEmail";
import { Page } from "./ui";
import "./styles.css";

const queries = new QueryClient();

function NotFound() {
  return (
    <Page title="Page not found">
      <p>
        <Link to="/">Go to Vigil</Link>
      </p>
    </Page>
  );
}

createRoot(document.getElementById("root")!).render(
  <StrictMode>
    <TransportProvider transport={transport}>
      <QueryClientProvider client={queries}>
        <BrowserRouter basename="/app">
          <Routes>
            <Route path="/" element={<Home />} />
            <Route path="/sign-in" element={<SignIn />} />
            <Route path="/invite" element={<Invite />} />
            <Route path="/verify-email" element={<VerifyEmail />} />
            <Route path="/reset-password" element={<ResetPassword />} />
            <Route path="*" element={<NotFound />} />
          </Routes>
        </BrowserRouter>
      </QueryClientProvider>
    </TransportProvider>
  </StrictMode>,
);
